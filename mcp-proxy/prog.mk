# mcp-proxy links the static libcurl + BearSSL from mk/deps ($(DEPLIB) is
# build/deps/musl, or build/deps/glibc for MODE=san).
CFLAGS_mcp-proxy :=
LDLIBS_mcp-proxy :=
