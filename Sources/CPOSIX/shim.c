#include "cposix.h"
