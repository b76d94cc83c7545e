#include <sys/wait.h>

#include "status.h"

int
wait_code(int ws)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	return EXIT_CHAIN_FAIL;
}
