package postgres

import (
	"context"
	"database/sql/driver"
	"fmt"
	"net"
	"time"

	"github.com/lib/pq"

	"github.com/profdb/profdb/dialects"
)

var _ dialects.Connector = Dialect{}

// Connector returns a lib/pq connector for the driver DSN whose
// connections are opened with dial. It implements dialects.Connector.
func (Dialect) Connector(driverDSN string, dial dialects.DialFunc) (driver.Connector, error) {
	c, err := pq.NewConnector(driverDSN)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	c.Dialer(pqDialer{dial})
	return c, nil
}

// pqDialer adapts a DialFunc to lib/pq's Dialer and DialerContext.
type pqDialer struct{ dial dialects.DialFunc }

func (d pqDialer) Dial(network, addr string) (net.Conn, error) {
	return d.dial(context.Background(), network, addr)
}

func (d pqDialer) DialTimeout(network, addr string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return d.dial(ctx, network, addr)
}

func (d pqDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return d.dial(ctx, network, addr)
}
