/*
 * apply.h: the only place probe reaches confine's boundary code. A check's
 * policy is said here in probe's words; apply.c turns it into lib/sandbox.h's
 * configuration and checks or applies it in the calling process, exactly as
 * confine does before its exec. One implementation: nothing here restricts
 * anything by itself.
 */
#ifndef PROBE_APPLY_H
#define PROBE_APPLY_H
#include <stddef.h>

struct probe_policy {
	const char *read[2];	/* directories granted read-only (NULL: none) */
	int connect_port;	/* > 0: TCP connect allowed to this port only */
	int no_network;		/* --no-network */
	int scope;		/* IPC scoping (signals, abstract unix sockets) */
	int filter_ip;		/* --filter-ip: IP destinations through the broker */
	int keep[2];		/* descriptors to keep open (-1: none) */
};

/* Initialise p: nothing granted, nothing restricted, nothing kept. */
void probe_policy_init(struct probe_policy *p);
/* Add b's grants and restrictions to a. -1 with errno EINVAL when they
 * conflict (ports and no network) or do not fit. */
int probe_policy_merge(struct probe_policy *a, const struct probe_policy *b);
/* Would the sandbox take p here? Changes nothing (sb_check). 0, or -1 with
 * errno and the sandbox's one-line reason in why (n bytes). */
int probe_admit(const struct probe_policy *p, char *why, size_t n);
/* Apply p to the calling process. 0, or -1 with errno and the sandbox's
 * one-line reason in why (n bytes). */
int probe_apply(const struct probe_policy *p, char *why, size_t n);

#endif
