"""Models: the chat model and the embedding model run by llama.cpp, checks and facts about GGUF
files, grammar-constrained structured output, the demo model, the catalog and its downloads.

Independent of memory and conversation (an import-linter contract): a model knows nothing of
what is remembered, so it can be tried, swapped or benchmarked on its own."""
