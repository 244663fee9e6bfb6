#include "capplecompression.h"
