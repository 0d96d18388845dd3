// Package llmstub is a local stand-in for the language-model providers the
// venue's agents call: it speaks the OpenAI chat-completions API
// (POST .../chat/completions) and the Anthropic messages API
// (POST .../messages), plain and streaming (Server-Sent Events), with tool
// calls, and answers from a script instead of a model. Tests point an
// agent's baseUrl at it; cmd/llmstub serves a script file for people.
package llmstub
