# session-store verify.c asks the provider whose a renewed token is: the
# static libcurl + BearSSL of mk/deps, as mcp-proxy links them.
CFLAGS_session-store := -I$(DEPLIB)/include
LDLIBS_session-store := $(DEPLIB)/lib/libcurl.a $(DEPLIB)/lib/libbearssl.a
