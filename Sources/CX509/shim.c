#include "cx509.h"
