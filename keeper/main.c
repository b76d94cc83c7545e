/* keeper: the attempt's cgroup, limits, terminal and subreaper; then PROG,
 * and the end of every process of the attempt (keeper.h). */
#include "keeper.h"
#include "msg.h"

extern char **environ;

int
main(int argc, char *argv[])
{
	struct keeper_opts o;
	int status;

	msg_init(argv[0]);
	if (keeper_opts_parse(argc, argv, &o, &status) != 0)
		return status;
	return keeper_run(&o, environ);
}
