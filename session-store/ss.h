/* session-store: the commands. Each returns the exit status. */
#ifndef SS_H
#define SS_H
#include "profile.h"

struct ss {
	const char *store;		/* the store directory */
	int fd;				/* its descriptor */
	struct profiles prof;
};

int ss_begin(struct ss *s, int argc, char **argv);
int ss_end(struct ss *s, int argc, char **argv);
int ss_list(struct ss *s, int argc, char **argv);
int ss_show(struct ss *s, int argc, char **argv);
int ss_put(struct ss *s, int argc, char **argv);
int ss_release(struct ss *s, int argc, char **argv);
int ss_renew(struct ss *s, int argc, char **argv);
int ss_reap(struct ss *s, int argc, char **argv);
void ss_usage(int fd);

#endif
