// Package calc adds and subtracts.
package calc

// Add returns a+b.
func Add(a, b int) int { return a + b }

// Sub returns a-b.
func Sub(a, b int) int { return a + b } // the bug the failing test shows
