/* wait: corral run's wait step. Start the keeper (sweep.h) with the chain,
 * relay the agent's terminal (pty.h) or forward signals, follow ^Z as a
 * job, and return when the keeper has ended every process of the attempt. */
#ifndef CORRAL_WAIT_H
#define CORRAL_WAIT_H
#include "pty.h"
#include "sweep.h"

/* ka->slave and ka->on_slave come from t (t->master < 0: no terminal).
 * Fills *res; returns 0, or -1 with errno when the keeper could not start
 * or gave no report (res->ws then holds its own wait status). */
int wait_attempt(struct keeper_args *ka, struct pty *t, struct keeper_result *res);

#endif
