package tdstest

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
)

// TDS packet types (MS-TDS 2.2.3.1.1).
const (
	pktBatch     = 1
	pktRPC       = 3
	pktReply     = 4
	pktAttention = 6
	pktBulkLoad  = 7
	pktTransMgr  = 14
	pktLogin7    = 16
	pktPrelogin  = 18
)

// maxMessage bounds the size of one client message.
const maxMessage = 256 << 20

// User and password that DSN puts in connection strings.
const (
	dsnUser     = "sa"
	dsnPassword = "tdstest-Passw0rd"
)

// Server is an in-process TDS server for tests, listening on a loopback port.
type Server struct {
	handler Handler
	ln      net.Listener
	wg      sync.WaitGroup

	mu       sync.Mutex
	events   []Event
	conns    map[*conn]struct{}
	nextConn int
	nextTx   uint64
	closed   bool
}

// NewServer starts a server on 127.0.0.1 with a random port. Requests are
// answered by h; a nil h answers every request with an empty DONE.
func NewServer(h Handler) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{handler: h, ln: ln, conns: map[*conn]struct{}{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Addr returns the host:port the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// DSN returns a go-mssqldb connection string for the server and the given
// initial database, with user "sa" and encryption disabled. Driver options
// can be appended, such as "&packet size=512".
func (s *Server) DSN(database string) string {
	u := url.URL{Scheme: "sqlserver", User: url.UserPassword(dsnUser, dsnPassword), Host: s.Addr(),
		RawQuery: url.Values{"database": {database}, "encrypt": {"disable"}}.Encode()}
	return u.String()
}

// Close stops listening, closes all connections and waits for their
// goroutines, including running handlers, to finish.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	err := s.ln.Close()
	for c := range s.conns {
		c.nc.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

// Events returns a copy of every recorded event, in the order the server
// received them across all connections.
func (s *Server) Events() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Event(nil), s.events...)
}

// ResetEvents forgets the events recorded so far.
func (s *Server) ResetEvents() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = nil
}

func (s *Server) record(ev Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, ev)
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			nc.Close()
			return
		}
		s.nextConn++
		c := &conn{srv: s, id: s.nextConn, nc: nc, packetSize: 4096}
		s.conns[c] = struct{}{}
		s.wg.Add(2) // serve and its reader
		s.mu.Unlock()
		go c.serve()
	}
}

// message is one client message, reassembled from its packets.
type message struct {
	typ  byte
	data []byte
}

// conn is one client connection.
type conn struct {
	srv        *Server
	id         int
	nc         net.Conn
	packetSize int
	loggedIn   bool
	tx         uint64 // current transaction descriptor
	bulkSQL    string // the last INSERT BULK statement
}

func (c *conn) serve() {
	defer c.srv.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer func() {
		cancel()
		c.nc.Close()
		c.srv.mu.Lock()
		delete(c.srv.conns, c)
		c.srv.mu.Unlock()
	}()
	msgs := make(chan message)
	go c.read(ctx, msgs)
	bw := bufio.NewWriterSize(c.nc, 32<<10)
	for m := range msgs {
		out, err := c.handle(ctx, m, msgs)
		if err != nil {
			return
		}
		if err := c.write(bw, out); err != nil {
			return
		}
	}
}

// read reads messages until the connection fails, then closes msgs.
func (c *conn) read(ctx context.Context, msgs chan<- message) {
	defer c.srv.wg.Done()
	defer close(msgs)
	br := bufio.NewReaderSize(c.nc, 32<<10)
	for {
		var m message
		var hdr [8]byte
		for {
			if _, err := io.ReadFull(br, hdr[:]); err != nil {
				return
			}
			size := int(binary.BigEndian.Uint16(hdr[2:]))
			if size < 8 || len(m.data)+size > maxMessage {
				return
			}
			m.typ = hdr[0]
			start := len(m.data)
			m.data = append(m.data, make([]byte, size-8)...)
			if _, err := io.ReadFull(br, m.data[start:]); err != nil {
				return
			}
			if hdr[1]&0x01 != 0 { // end of message
				break
			}
		}
		select {
		case msgs <- m:
		case <-ctx.Done():
			return
		}
	}
}

// write sends a reply message split into packets of the negotiated size.
func (c *conn) write(bw *bufio.Writer, data []byte) error {
	for seq := 1; ; seq++ {
		n := min(len(data), c.packetSize-8)
		status := byte(0)
		if n == len(data) {
			status = 1
		}
		hdr := [8]byte{pktReply, status, byte((n + 8) >> 8), byte(n + 8), 0, byte(c.id), byte(seq), 0}
		bw.Write(hdr[:])
		bw.Write(data[:n])
		data = data[n:]
		if status == 1 {
			return bw.Flush()
		}
	}
}

// handle answers one message; an error closes the connection.
func (c *conn) handle(ctx context.Context, m message, msgs <-chan message) ([]byte, error) {
	if !c.loggedIn {
		switch m.typ {
		case pktPrelogin:
			return preloginReply, nil
		case pktLogin7:
			return c.login(m.data)
		}
		return nil, fmt.Errorf("tdstest: unexpected packet type %d before login", m.typ)
	}
	switch m.typ {
	case pktAttention:
		c.srv.record(Event{Conn: c.id, Kind: Attention, TxDescriptor: c.tx})
		return attnReply(), nil
	case pktTransMgr:
		return c.transaction(m.data), nil
	case pktBatch, pktRPC, pktBulkLoad:
	default:
		return nil, fmt.Errorf("tdstest: unsupported packet type %d", m.typ)
	}
	ev, err := c.decode(m)
	if err != nil {
		return errorReply(err, m.typ == pktRPC), nil
	}
	c.srv.record(ev)
	if e := untypedNull(ev); e != nil {
		return errorReply(e, true), nil
	}
	res, attn, err := c.call(ctx, &Request{Event: ev}, msgs)
	if attn {
		return attnReply(), nil
	}
	if err == nil && res == nil && ev.Kind == BulkLoad {
		res = &Result{RowsAffected: int64(len(ev.Bulk.Rows))}
	}
	return resultReply(res, err, ev.Kind == RPC), nil
}

// call runs the handler while watching for an attention signal.
func (c *conn) call(ctx context.Context, req *Request, msgs <-chan message) (res *Result, attn bool, err error) {
	if c.srv.handler == nil {
		return nil, false, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req.ctx = ctx
	type answer struct {
		res *Result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- answer{err: fmt.Errorf("tdstest: handler panic: %v", p)}
			}
		}()
		r, e := c.srv.handler(req)
		done <- answer{r, e}
	}()
	select {
	case a := <-done:
		return a.res, false, a.err
	case m, ok := <-msgs:
		cancel()
		<-done
		if ok && m.typ == pktAttention {
			c.srv.record(Event{Conn: c.id, Kind: Attention, TxDescriptor: c.tx})
			return nil, true, nil
		}
		return nil, false, errors.New("tdstest: connection lost or new request while one was running")
	}
}

// preloginReply answers PRELOGIN (MS-TDS 2.2.6.5) without encryption: five
// options (token, big-endian offset and length), a terminator, then the data.
var preloginReply = []byte{
	0, 0, 26, 0, 6, // VERSION
	1, 0, 32, 0, 1, // ENCRYPTION
	2, 0, 33, 0, 1, // INSTOPT
	3, 0, 34, 0, 0, // THREADID
	4, 0, 34, 0, 1, // MARS
	0xFF,
	16, 0, 0, 0, 0, 0, // version 16.0
	2, // ENCRYPT_NOT_SUP
	0, // no instance
	0, // MARS off
}

// login reads LOGIN7 (MS-TDS 2.2.6.4); the password is never looked at.
func (c *conn) login(d []byte) ([]byte, error) {
	if len(d) < 94 {
		return nil, errors.New("tdstest: short LOGIN7")
	}
	le := binary.LittleEndian
	field := func(pos int) string {
		off, n := int(le.Uint16(d[pos:])), 2*int(le.Uint16(d[pos+2:]))
		if off+n > len(d) {
			return ""
		}
		return decodeUCS2(d[off : off+n])
	}
	user, db := field(40), field(68)
	c.packetSize = max(512, min(32767, int(le.Uint32(d[8:]))))
	if le.Uint32(d[8:]) == 0 {
		c.packetSize = 4096
	}
	if db == "" {
		db = "master"
	}
	c.loggedIn = true
	c.srv.record(Event{Conn: c.id, Kind: Login, User: user, Database: db})

	w := &writer{}
	envChange(w, 1, bvarchar(db), bvarchar("master"))
	envChange(w, 7, bvarbyte(defaultCollation[:]), bvarbyte(nil))
	ps := fmt.Sprint(c.packetSize)
	envChange(w, 4, bvarchar(ps), bvarchar(ps))
	name := encodeUCS2("tdstest")
	w.u8(tokLoginAck)
	w.u16(uint16(1 + 4 + 1 + len(name) + 4))
	w.u8(1)                         // interface: SQL_TSQL
	w.bytes([]byte{0x74, 0, 0, 4})  // TDS 7.4
	w.u8(byte(len(name) / 2))       // program name
	w.bytes(name)                   //
	w.bytes([]byte{16, 0, 0x10, 0}) // program version 16.0.4096
	writeDone(w, tokDone, 0, 0, 0)
	return w.b, nil
}

// allHeaders reads ALL_HEADERS (MS-TDS 2.2.5.3) and returns the transaction
// descriptor.
func (r *reader) allHeaders() uint64 {
	total, start := int(r.u32()), r.off-4
	var tx uint64
	for r.err == nil && r.off < start+total {
		n, typ := int(r.u32()), r.u16()
		data := r.next(n - 6)
		if typ == 2 && len(data) >= 8 {
			tx = binary.LittleEndian.Uint64(data)
		}
	}
	return tx
}

var procNames = []string{"", "sp_cursor", "sp_cursoropen", "sp_cursorprepare", "sp_cursorexecute",
	"sp_cursorprepexec", "sp_cursorunprepare", "sp_cursorfetch", "sp_cursoroption", "sp_cursorclose",
	"sp_executesql", "sp_prepare", "sp_execute", "sp_prepexec", "sp_prepexecrpc", "sp_unprepare"}

// decode turns a batch, RPC or bulk load message into an Event.
func (c *conn) decode(m message) (Event, error) {
	r := &reader{b: m.data}
	ev := Event{Conn: c.id}
	switch m.typ {
	case pktBatch:
		ev.Kind = Batch
		ev.TxDescriptor = r.allHeaders()
		ev.SQL = r.ucs2((len(r.b) - r.off) / 2)
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(ev.SQL)), "insert bulk") {
			c.bulkSQL = ev.SQL
		}
	case pktRPC:
		ev.Kind = RPC
		ev.TxDescriptor = r.allHeaders()
		if n := r.u16(); n == 0xFFFF {
			id := int(r.u16())
			ev.Proc = fmt.Sprintf("proc#%d", id)
			if id < len(procNames) {
				ev.Proc = procNames[id]
			}
		} else {
			ev.Proc = r.ucs2(int(n))
		}
		r.u16() // option flags
		for r.more() {
			p := Param{Name: r.bvarchar(), Output: r.u8()&1 != 0}
			p.Type = r.typeInfo()
			p.Value = r.value(p.Type)
			ev.Params = append(ev.Params, p)
		}
		ev.SQL = ev.Proc
		if strings.EqualFold(ev.Proc, "sp_executesql") && len(ev.Params) >= 1 {
			ev.SQL, _ = ev.Params[0].Value.(string)
			if len(ev.Params) >= 2 {
				ev.ParamDecl, _ = ev.Params[1].Value.(string)
			}
			ev.Params = ev.Params[min(2, len(ev.Params)):]
		}
	case pktBulkLoad:
		ev.Kind = BulkLoad
		ev.SQL = c.bulkSQL
		ev.TxDescriptor = c.tx
		ev.Bulk = c.bulk(r)
	}
	return ev, r.err
}

// bulk decodes a BULK LOAD message: COLMETADATA, ROWs and DONE.
func (c *conn) bulk(r *reader) *BulkData {
	b := &BulkData{}
	if rest, ok := cutPrefixFold(strings.TrimSpace(c.bulkSQL), "insert bulk"); ok {
		b.Table, _ = objectName(rest)
	}
	for r.more() {
		switch tok := r.u8(); tok {
		case tokColMetadata:
			n := int(r.u16())
			for i := 0; i < n && r.err == nil; i++ {
				r.u32() // user type
				r.u16() // flags
				col := Column{Type: r.typeInfo()}
				col.Name = r.bvarchar()
				b.Columns = append(b.Columns, col)
			}
		case tokRow:
			row := make([]any, len(b.Columns))
			for i, col := range b.Columns {
				row[i] = r.value(col.Type)
			}
			b.Rows = append(b.Rows, row)
		case tokDone:
			r.next(12)
			return b
		default:
			r.fail("unexpected token 0x%02X in bulk load", tok)
		}
	}
	return b
}

// transaction answers a transaction manager request (MS-TDS 2.2.6.9).
func (c *conn) transaction(d []byte) []byte {
	r := &reader{b: d}
	hdrTx := r.allHeaders()
	w := &writer{}
	ev := Event{Conn: c.id, TxDescriptor: hdrTx}
	switch typ := r.u16(); typ {
	case 5: // TM_BEGIN_XACT
		c.srv.mu.Lock()
		c.srv.nextTx++
		c.tx = 0x5453_0000_0000_0000 | c.srv.nextTx
		c.srv.mu.Unlock()
		ev.Kind, ev.TxDescriptor = Begin, c.tx
		envChange(w, 8, bvarbyte(binary.LittleEndian.AppendUint64(nil, c.tx)), bvarbyte(nil))
	case 7, 8: // TM_COMMIT_XACT, TM_ROLLBACK_XACT
		ev.Kind = Commit
		if typ == 8 {
			ev.Kind = Rollback
		}
		if ev.TxDescriptor == 0 {
			ev.TxDescriptor = c.tx
		}
		envChange(w, byte(typ+2), bvarbyte(nil), bvarbyte(binary.LittleEndian.AppendUint64(nil, ev.TxDescriptor)))
		c.tx = 0
	default:
		return errorReply(fmt.Errorf("tdstest: unsupported transaction manager request %d", typ), false)
	}
	c.srv.record(ev)
	writeDone(w, tokDone, 0, 0, 0)
	return w.b
}

// untypedNull returns the error Babelfish gives an RPC with an untyped NULL
// parameter (TDS type 0x1F, what go-mssqldb sends for a Go nil), or nil.
// SQL Server accepts such a NULL, but a client that sends one fails on
// Babelfish, so the test server refuses it too: whatever passes here must
// also pass on the real servers profdb is tested against.
func untypedNull(ev Event) error {
	if ev.Kind != RPC {
		return nil
	}
	for i, p := range ev.Params {
		if p.Type.ID == TypeNull {
			n := i + 1
			if strings.EqualFold(ev.Proc, "sp_executesql") {
				n += 2 // @stmt and @params were taken off Params
			}
			return &Error{Number: 8009, State: 1, Class: 16, Message: fmt.Sprintf(
				"The incoming tabular data stream (TDS) remote procedure call (RPC) protocol stream is incorrect. Parameter %d (%q): Data type 0x1F is unknown.", n, p.Name)}
		}
	}
	return nil
}
