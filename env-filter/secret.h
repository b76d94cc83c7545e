/* secret: does a value look like a credential? Pure. */
#ifndef ENVFILTER_SECRET_H
#define ENVFILTER_SECRET_H
#include <stddef.h>

/* NULL when val (len bytes) looks like no secret; otherwise a short,
 * value-free description of the shape found ("GitHub token", "JWT", ...). */
const char *secret_shape(const char *val, size_t len);

#endif
