package store

import "golang.org/x/sys/unix"

// ofdSetlk is fcntl's F_OFD_SETLK.
const ofdSetlk = unix.F_OFD_SETLK
