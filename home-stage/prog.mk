CFLAGS_home-stage := -Ihome-stage
