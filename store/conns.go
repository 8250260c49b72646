package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// Defaults of Options.ConnectTimeout and Options.IOTimeout.
const (
	// DefaultConnectTimeout bounds opening a connection: the TCP
	// connection, the driver's handshake and login, and the first ping.
	DefaultConnectTimeout = 30 * time.Second
	// DefaultIOTimeout is how long a server may stay silent while profdb
	// waits for it, or refuse to take what profdb sends, before profdb
	// gives up: longer than any wait of profdb's own (MySQL's allocation
	// lock waits 10 minutes), so that only a dead or stalled connection
	// reaches it.
	DefaultIOTimeout = 15 * time.Minute
	// keepAlive is the TCP keepalive idle time and probe interval of every
	// connection profdb opens.
	keepAlive = 15 * time.Second
)

// conns opens the network connections of one DB: with a connect timeout
// and TCP keepalive, each read and write bounded by an I/O timeout, and
// every connection closed at once by closeAll, so that an interrupted
// command's blocked COPY, LOAD DATA or bulk copy returns.
type conns struct {
	dialer net.Dialer
	io     time.Duration // 0: no I/O timeout

	mu     sync.Mutex
	open   map[*guardedConn]struct{}
	closed bool  // closeAll ran
	failed error // the first read or write that failed, unless closeAll caused it
}

func newConns(connect, io time.Duration) *conns {
	return &conns{
		dialer: net.Dialer{Timeout: connect, KeepAliveConfig: net.KeepAliveConfig{
			Enable: true, Idle: keepAlive, Interval: keepAlive, Count: 4}},
		io:   io,
		open: map[*guardedConn]struct{}{},
	}
}

// dial is the dialects.DialFunc of the DB's connector.
func (c *conns) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	nc, err := c.dialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	g := &guardedConn{Conn: nc, owner: c}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		nc.Close()
		return nil, net.ErrClosed
	}
	c.open[g] = struct{}{}
	return g, nil
}

// closeAll closes every open connection and refuses new ones: a read or
// write blocked in any of them returns with an error.
func (c *conns) closeAll() {
	c.mu.Lock()
	c.closed = true
	open := c.open
	c.open = map[*guardedConn]struct{}{}
	c.mu.Unlock()
	for g := range open {
		g.Conn.Close()
	}
}

// guardedConn is a connection of conns: each Read and Write must make
// progress within the I/O timeout, or by the deadline the driver set, if
// that is earlier.
type guardedConn struct {
	net.Conn
	owner *conns

	mu                sync.Mutex
	readDue, writeDue time.Time // deadlines the driver set; zero for none
}

func (g *guardedConn) Read(p []byte) (int, error) {
	if err := g.arm(g.Conn.SetReadDeadline, &g.readDue); err != nil {
		return 0, err
	}
	n, err := g.Conn.Read(p)
	if err != nil {
		g.failed(err)
	}
	return n, err
}

func (g *guardedConn) Write(p []byte) (int, error) {
	if err := g.arm(g.Conn.SetWriteDeadline, &g.writeDue); err != nil {
		return 0, err
	}
	n, err := g.Conn.Write(p)
	if err != nil {
		g.failed(err)
	}
	return n, err
}

// failed records the first I/O error of the DB's connections, in words a
// user understands: an expired I/O timeout of profdb's says so.
func (g *guardedConn) failed(err error) {
	if errors.Is(err, net.ErrClosed) {
		return // closed by the driver or by closeAll
	}
	if errors.Is(err, io.EOF) {
		err = errors.New("the server closed the connection")
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		err = fmt.Errorf("the server neither answered nor took data for %s (the I/O timeout): %w", g.owner.io, err)
	}
	g.owner.mu.Lock()
	if !g.owner.closed && g.owner.failed == nil {
		g.owner.failed = err
	}
	g.owner.mu.Unlock()
}

// lost returns the first I/O error of the connections, nil if none failed
// (or only closeAll made them fail).
func (c *conns) lost() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failed
}

// arm sets the deadline of the next read or write: the I/O timeout from
// now, or the driver's own deadline if earlier.
func (g *guardedConn) arm(set func(time.Time) error, driverDue *time.Time) error {
	if g.owner.io <= 0 {
		return nil
	}
	due := time.Now().Add(g.owner.io)
	g.mu.Lock()
	if d := *driverDue; !d.IsZero() && d.Before(due) {
		due = d
	}
	g.mu.Unlock()
	return set(due)
}

// SetDeadline, SetReadDeadline and SetWriteDeadline record the driver's
// deadlines, which arm honours.
func (g *guardedConn) SetDeadline(t time.Time) error {
	g.mu.Lock()
	g.readDue, g.writeDue = t, t
	g.mu.Unlock()
	return g.Conn.SetDeadline(t)
}

func (g *guardedConn) SetReadDeadline(t time.Time) error {
	g.mu.Lock()
	g.readDue = t
	g.mu.Unlock()
	return g.Conn.SetReadDeadline(t)
}

func (g *guardedConn) SetWriteDeadline(t time.Time) error {
	g.mu.Lock()
	g.writeDue = t
	g.mu.Unlock()
	return g.Conn.SetWriteDeadline(t)
}

func (g *guardedConn) Close() error {
	g.owner.mu.Lock()
	delete(g.owner.open, g)
	g.owner.mu.Unlock()
	return g.Conn.Close()
}
