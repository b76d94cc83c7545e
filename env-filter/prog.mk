# env-filter ships stripped: the size bound (under 64 KiB) is for what is installed.
ifneq ($(MODE),san)
LDLIBS_env-filter := -s
endif
# unit tests include the pure parsers' headers
CFLAGS_env-filter := -Ienv-filter
