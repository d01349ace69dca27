package exits

import (
	"os"
	"testing"
)

func TestFirst(t *testing.T) {}
func TestExit(t *testing.T)  { os.Exit(0) }
func TestAfter(t *testing.T) {}
