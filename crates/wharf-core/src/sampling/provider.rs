//! LLM providers for sampling (being written).
