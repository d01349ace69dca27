#!/bin/sh
python -m build
