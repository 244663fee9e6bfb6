#include "ccrypto.h"
