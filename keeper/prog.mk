# unit tests include the pure parts' headers (escfilter, the options)
CFLAGS_keeper := -Ikeeper
