package realtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Bus carries the hub's operations between the instances of one app
// (Sails' socket.io adapter and admin bus). It moves opaque messages; the
// Hub decides what they mean. Implementations live in their own packages
// (realtime/redisbus, realtime/natsbus); without one a Hub serves a single
// instance.
type Bus interface {
	// Publish sends msg to every instance, this one included or not (the
	// Hub drops its own). The Hub calls it from one goroutine at a time,
	// in order, so an implementation that sends in call order keeps the
	// order of operations. It should fail fast while the bus is down.
	Publish(ctx context.Context, msg []byte) error
	// Receive subscribes, calls ready once the subscription is in place,
	// then calls deliver with each message published by any instance, one
	// at a time, until ctx is done (it then returns nil) or the connection
	// is lost (it returns the error; the Hub calls Receive again after a
	// backoff). deliver must not keep msg after it returns.
	Receive(ctx context.Context, ready func(), deliver func(msg []byte)) error
	// Close releases the bus's connections.
	Close() error
}

// ErrTooLarge is what a Bus's Publish returns, wrapped, for a message
// larger than the bus carries: the message is counted as lost, but the bus
// is not down.
var ErrTooLarge = errors.New("message too large for the bus")

// The operations of a wire message.
const (
	opTo     = "to"     // once to every member of the rooms
	opEach   = "each"   // once per room to its members
	opAll    = "all"    // to every socket
	opAdd    = "add"    // members of Src join Rooms
	opRemove = "remove" // members of Src leave Rooms
	opEmpty  = "empty"  // every socket leaves Rooms
)

// wireMessage is one operation as it crosses instances.
type wireMessage struct {
	Node  string          `json:"n"`
	Op    string          `json:"op"`
	Rooms []string        `json:"r,omitempty"`
	Src   string          `json:"s,omitempty"`
	Omit  string          `json:"o,omitempty"`
	Event string          `json:"e,omitempty"`
	Data  json.RawMessage `json:"d,omitempty"`
}

// outboxSize is how many messages may wait for the bus before new ones are
// counted as lost.
const outboxSize = 4096

// Backoff bounds between attempts to subscribe again after the bus was lost.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 3 * time.Second
)

// The states of the bus as the hub last saw it.
const (
	busStarting int32 = iota
	busUp
	busDown
)

// link is a Hub's side of its Bus: the outbox, the goroutines that own
// it, and the outage bookkeeping.
type link struct {
	bus  Bus
	node string
	log  *slog.Logger

	out  chan []byte
	lost atomic.Uint64 // messages that could not cross, ever
	// published, received and outages count, for metrics, the messages
	// handed to the bus, those other instances sent here, and the times
	// the bus was lost.
	published, received, outages atomic.Uint64
	state                        atomic.Int32 // busStarting, busUp or busDown; written under mu
	// pubDown and subUp tell each side's health: the bus is up when the
	// subscription is in place and publishing works.
	pubDown atomic.Bool
	subUp   atomic.Bool
	mu      sync.Mutex // serialises state changes
	// lostAtOutage is lost when the current outage began.
	lostAtOutage uint64

	startOnce sync.Once
	stopOnce  sync.Once
	cancel    context.CancelFunc
	done      sync.WaitGroup
}

func newLink(bus Bus, log *slog.Logger) *link {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return &link{bus: bus, node: hex.EncodeToString(b), log: log, out: make(chan []byte, outboxSize)}
}

// send queues m for the other instances; it never blocks.
func (l *link) send(m *wireMessage) {
	m.Node = l.node
	b, err := json.Marshal(m)
	if err != nil { // cannot happen: strings and valid JSON only
		l.dropped(fmt.Errorf("encode bus message: %w", err))
		return
	}
	select {
	case l.out <- b:
	default:
		l.dropped(fmt.Errorf("bus outbox full (%d messages waiting)", outboxSize))
	}
}

// dropped counts a message that could not cross and reports the outage.
func (l *link) dropped(err error) {
	l.lost.Add(1)
	l.pubDown.Store(true)
	l.update(err)
}

// publishedOK records that publishing works (again).
func (l *link) publishedOK() {
	if l.pubDown.Load() {
		l.pubDown.Store(false)
		l.update(nil)
	}
}

// subscribed records whether the subscription is in place.
func (l *link) subscribed(up bool, err error) {
	l.mu.Lock()
	l.subUp.Store(up)
	if up {
		// The server answers again: publishing is presumed to work until
		// it fails.
		l.pubDown.Store(false)
	}
	l.mu.Unlock()
	l.update(err)
}

// update recomputes the state from both sides, logging each outage once
// and its end.
func (l *link) update(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	next := busDown
	if l.subUp.Load() && !l.pubDown.Load() {
		next = busUp
	}
	prev := l.state.Load()
	if next == prev || (next == busDown && prev == busStarting && err == nil) {
		return
	}
	l.state.Store(next)
	switch {
	case next == busUp && prev == busDown:
		l.log.Warn("realtime: bus back: notifications cross instances again",
			slog.Uint64("lost_during_outage", l.lost.Load()-l.lostAtOutage), slog.Uint64("lost_total", l.lost.Load()))
	case next == busUp:
		l.log.Info("realtime: bus joined: notifications cross instances")
	case prev == busUp:
		l.outages.Add(1)
		l.lostAtOutage = l.lost.Load()
		l.log.Warn("realtime: bus lost: notifications to other instances are counted and dropped until it is back; local delivery goes on",
			slog.Any("err", err))
	default: // starting
		l.outages.Add(1)
		l.lostAtOutage = 0
		l.log.Warn("realtime: bus unreachable at start: serving anyway; this instance joins the others when the bus is up",
			slog.Any("err", err))
	}
}

// start runs the publisher and the subscriber until stop.
func (l *link) start(deliver func([]byte)) {
	l.startOnce.Do(func() {
		ctx, cancel := context.WithCancel(context.Background())
		l.cancel = cancel
		l.done.Add(2)
		go l.publish(ctx)
		go l.receive(ctx, deliver)
	})
}

// stop ends the goroutines and closes the bus.
func (l *link) stop() error {
	var err error
	l.stopOnce.Do(func() {
		l.startOnce.Do(func() {}) // a later start does nothing
		if l.cancel != nil {
			l.cancel()
			l.done.Wait()
		}
		if n := len(l.out); n > 0 {
			l.lost.Add(uint64(n))
		}
		if n := l.lost.Load(); n > 0 {
			l.log.Warn("realtime: notifications that could not cross instances", slog.Uint64("lost_total", n))
		}
		err = l.bus.Close()
	})
	return err
}

// probeEvery is how often, while publishing fails but the subscription
// holds, the publisher tries one message. The others are counted as lost
// at once, as are all while the subscription is down too (it finds out
// when the server is back): none arrives late after an outage, and an
// unreachable server does not hold each message for a dial timeout.
const probeEvery = 250 * time.Millisecond

// publish drains the outbox into the bus, in order.
func (l *link) publish(ctx context.Context) {
	defer l.done.Done()
	var lastTry time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case b := <-l.out:
			if l.state.Load() == busDown && (!l.subUp.Load() || time.Since(lastTry) < probeEvery) {
				l.lost.Add(1)
				continue
			}
			lastTry = time.Now()
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := l.bus.Publish(pctx, b)
			cancel()
			switch {
			case err == nil:
				l.published.Add(1)
				l.publishedOK()
			case errors.Is(err, ErrTooLarge):
				l.lost.Add(1)
				l.log.Warn("realtime: a notification too large for the bus reached only this instance's sockets",
					slog.Int("bytes", len(b)), slog.Any("err", err))
			case ctx.Err() == nil:
				l.dropped(fmt.Errorf("publish: %w", err))
			}
		}
	}
}

// receive keeps a subscription, subscribing again with backoff when it is
// lost.
func (l *link) receive(ctx context.Context, deliver func([]byte)) {
	defer l.done.Done()
	backoff := minBackoff
	for {
		err := l.bus.Receive(ctx, func() { backoff = minBackoff; l.subscribed(true, nil) }, func(b []byte) {
			l.received.Add(1)
			deliver(b)
		})
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			err = fmt.Errorf("subscription ended")
		}
		l.subscribed(false, err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, maxBackoff)
	}
}
