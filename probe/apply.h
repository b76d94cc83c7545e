/*
 * apply.h: the only place probe reaches confine's boundary code. A check's
 * policy is said here in probe's words; apply.c turns it into lib/sandbox.h's
 * configuration and applies it in the calling process, exactly as confine
 * does before its exec. One implementation: nothing here restricts anything
 * by itself.
 */
#ifndef PROBE_APPLY_H
#define PROBE_APPLY_H
#include <stddef.h>

struct probe_policy {
	const char *read[2];	/* directories granted read-only (NULL: none) */
	int connect_port;	/* > 0: TCP connect allowed to this port only */
	int no_network;		/* --no-network */
	int scope;		/* IPC scoping (signals, abstract unix sockets) */
	int keep[2];		/* descriptors to keep open (-1: none) */
};

/* Apply p to the calling process. 0, or -1 with errno and the sandbox's
 * one-line reason in why (n bytes). */
int probe_apply(const struct probe_policy *p, char *why, size_t n);

#endif
