"""Data sets the chapters read offline."""
