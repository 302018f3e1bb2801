//! What the user must know about a URL before it opens (being written).
