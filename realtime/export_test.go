package realtime

// RoomCount returns how many rooms the hub holds state for, so tests can
// check that nothing is left once every socket is gone.
func RoomCount(h *Hub) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.rooms)
}
