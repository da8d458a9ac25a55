package main

// Frames on the pipe: a 44-byte header, then the payload.
//
//	length uint32 (big-endian, payload bytes) | seq uint64 (big-endian) | mac [32]byte | payload
//
// mac = HMAC-SHA256(key, direction || seq || payload), direction 'Q' for requests (host to PDP)
// and 'A' for answers. Requests carry 1, 2, 3, ... in order; an answer carries its request's
// seq, and answers to decisions come as they are decided (not necessarily in order). A request
// with another seq, or a bad mac, is a frame someone else wrote: the PDP refuses it and exits
// (the stream can no longer be trusted to be in step), and the host starts another. The host
// likewise refuses an answer with a bad mac or a seq that is not a request in flight.

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

const (
	headerLen   = 4 + 8 + sha256.Size
	maxPayload  = 64 << 20
	dirRequest  = 'Q'
	dirAnswer   = 'A'
	minKeyBytes = 32
)

var errBadFrame = errors.New("bad frame")

func frameMAC(key []byte, dir byte, seq uint64, payload []byte) []byte {
	m := hmac.New(sha256.New, key)
	var head [9]byte
	head[0] = dir
	binary.BigEndian.PutUint64(head[1:], seq)
	m.Write(head[:])
	m.Write(payload)
	return m.Sum(nil)
}

// readFrame reads one request and checks its mac and that its seq is the one expected.
func readFrame(r io.Reader, key []byte, want uint64) ([]byte, error) {
	var head [headerLen]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(head[0:4])
	seq := binary.BigEndian.Uint64(head[4:12])
	if n > maxPayload {
		return nil, fmt.Errorf("%w: length %d", errBadFrame, n)
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		return nil, fmt.Errorf("%w: short payload: %v", errBadFrame, err)
	}
	if !hmac.Equal(head[12:], frameMAC(key, dirRequest, seq, payload)) {
		return nil, fmt.Errorf("%w: mac does not match (seq %d)", errBadFrame, seq)
	}
	if seq != want {
		return nil, fmt.Errorf("%w: seq %d, expected %d", errBadFrame, seq, want)
	}
	return payload, nil
}

// encodeAnswer frames an answer: payload is a 3-digit status followed by the body.
func encodeAnswer(key []byte, seq uint64, status int, body []byte) []byte {
	payload := make([]byte, 0, 3+len(body))
	payload = append(payload, fmt.Sprintf("%03d", status)...)
	payload = append(payload, body...)
	out := make([]byte, headerLen, headerLen+len(payload))
	binary.BigEndian.PutUint32(out[0:4], uint32(len(payload)))
	binary.BigEndian.PutUint64(out[4:12], seq)
	copy(out[12:], frameMAC(key, dirAnswer, seq, payload))
	return append(out, payload...)
}
