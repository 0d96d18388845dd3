// Package llm holds the language-model side of agents: clients of the
// OpenAI chat-completions and Anthropic messages APIs (plain and
// streaming, with tool calls) that reach the provider through the venue's
// outbound policy with the key taken from the caller's secret, the raw
// model call as an operation (llm:chat), and the LLM transition
// (llmagent:chat) that runs the tool-call loop over the operations an
// agent is granted.
package llm
