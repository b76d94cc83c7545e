#ifndef CORRAL_VERSION_H
#define CORRAL_VERSION_H
#define CORRAL_VERSION "0.1.0"
#endif
