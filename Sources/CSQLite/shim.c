#include "csqlite.h"
