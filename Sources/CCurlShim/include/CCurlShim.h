#pragma once
#include <stddef.h>
#include <stdint.h>
#include <curl/curl.h>

// Typed wrappers around libcurl's variadic curl_easy_setopt / curl_easy_getinfo, which Swift cannot call.
CURLcode bs_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode bs_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
CURLcode bs_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode bs_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode bs_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode bs_curl_setopt_read_function(CURL *handle, curl_read_callback callback);
CURLcode bs_curl_setopt_seek_function(CURL *handle, curl_seek_callback callback);
CURLcode bs_curl_setopt_write_function(CURL *handle, curl_write_callback callback);
CURLcode bs_curl_setopt_header_function(CURL *handle, curl_write_callback callback);
CURLcode bs_curl_setopt_xferinfo_function(CURL *handle, curl_xferinfo_callback callback);
CURLcode bs_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode bs_curl_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode bs_curl_getinfo_double(CURL *handle, CURLINFO info, double *value);
