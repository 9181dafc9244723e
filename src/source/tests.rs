//! Every fixture in `tests/fixtures` through `Source::open(..).records()`.
