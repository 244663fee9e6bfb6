#include "czstd.h"
