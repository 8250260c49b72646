package store

// ofdSetlk is fcntl's F_OFD_SETLK of macOS's <sys/fcntl.h>, which
// golang.org/x/sys/unix does not define for darwin. A kernel without it
// refuses it (EINVAL): files are then held unmarked and never removed
// (see lockShared).
const ofdSetlk = 90
