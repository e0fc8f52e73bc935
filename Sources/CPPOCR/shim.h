// libppocr's C API (rapidocr-ng 5.0.0a5, static), installed by scripts/bootstrap-ppocr.
#include <ppocr/ppocr.h>
