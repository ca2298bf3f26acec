// SPDX-License-Identifier: Apache-2.0 (written for lychd's golden-file tests)

// Package server serves an inventory over HTTP.
package server

import (
	"encoding/json"
	"errors"
	"net/http"
	stdsync "sync"
)

// DefaultAddr is where Serve listens by default.
const DefaultAddr = ":8080"

const (
	maxItems = 1000
	minItems = 1
)

var ErrFull = errors.New("inventory full")

// Item is one stocked article.
type Item struct {
	SKU   string `json:"sku"`
	Count int    `json:"count"`
}

// Store keeps items.
type Store interface {
	Get(sku string) (Item, bool)
	Put(item Item) error
}

type memoryStore struct {
	mu    stdsync.Mutex
	items map[string]Item
}

// NewMemoryStore returns an empty in-memory Store.
func NewMemoryStore() Store {
	return &memoryStore{items: map[string]Item{}}
}

// Get returns the item with the given SKU.
func (s *memoryStore) Get(sku string) (Item, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	item, ok := s.items[sku]
	return item, ok
}

func (s *memoryStore) Put(item Item) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.items) >= maxItems {
		return ErrFull
	}
	s.items[item.SKU] = item
	return nil
}

// Handler serves GET /items/{sku}.
func Handler(store Store) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		item, ok := store.Get(r.PathValue("sku"))
		if !ok {
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(item)
	}
}

type Pair[K comparable, V any] struct {
	Key   K
	Value V
}
