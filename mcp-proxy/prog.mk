# mcp-proxy links the static libcurl + BearSSL from mk/deps ($(DEPLIB) is
# build/deps/musl, or build/deps/glibc for MODE=san).
CFLAGS_mcp-proxy := -I$(DEPLIB)/include
LDLIBS_mcp-proxy := $(DEPLIB)/lib/libcurl.a $(DEPLIB)/lib/libbearssl.a
