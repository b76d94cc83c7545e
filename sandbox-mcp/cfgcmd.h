/* cfgcmd: sandbox-mcp config VERB, drun's configuration verbs (cfgcmd.c). */
#ifndef SBX_CFGCMD_H
#define SBX_CFGCMD_H

/* argv[0] is "config"; returns the exit status. */
int cfgcmd_main(const char *cfgpath, const char *home, int argc, char **argv);

#endif
