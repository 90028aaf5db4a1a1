#include "config.h"
/* placeholder */
