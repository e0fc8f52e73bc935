#include "CCurlShim.h"

CURLcode bs_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
CURLcode bs_curl_setopt_off_t(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
CURLcode bs_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
CURLcode bs_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
CURLcode bs_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
CURLcode bs_curl_setopt_read_function(CURL *h, curl_read_callback c) { return curl_easy_setopt(h, CURLOPT_READFUNCTION, c); }
CURLcode bs_curl_setopt_seek_function(CURL *h, curl_seek_callback c) { return curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, c); }
CURLcode bs_curl_setopt_write_function(CURL *h, curl_write_callback c) { return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, c); }
CURLcode bs_curl_setopt_header_function(CURL *h, curl_write_callback c) { return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, c); }
CURLcode bs_curl_setopt_xferinfo_function(CURL *h, curl_xferinfo_callback c) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, c); }
CURLcode bs_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
CURLcode bs_curl_getinfo_off_t(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
CURLcode bs_curl_getinfo_double(CURL *h, CURLINFO i, double *v) { return curl_easy_getinfo(h, i, v); }
