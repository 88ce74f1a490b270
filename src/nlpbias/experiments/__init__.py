"""Experiments of the book: each module runs one study from data to tables; notebooks call it."""
