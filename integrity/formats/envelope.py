"""What a pasted request body says about its format before a single message is looked at.

A saved request is the most reliable evidence there is: each provider's API names
its message list and its required fields differently.  `contents` is Gemini's
generateContent; an `input` list is OpenAI Responses; `modelId` with `messages` is
Bedrock Converse; `model` + `max_tokens` + `messages` is Anthropic Messages (which
requires max_tokens), `model` + `messages` otherwise OpenAI Chat.  Messages alone
can mislead: an Anthropic assistant turn holding only thinking and server-tool
blocks also looks like a pi-ai message, while its envelope says what it is.

Only provider formats are implied.  The entries still decide among the implied
formats (an OpenAI Chat request with `max_tokens` shows Chat's `tool` role), and a
request whose entries fit none of them is left to ordinary detection.
"""

from __future__ import annotations

from typing import Any

# Keys only an Anthropic Messages request has (max_tokens is shared: OpenAI Chat accepts it too).
_ANTHROPIC_KEYS = ("anthropic_version", "anthropic_beta", "stop_sequences", "mcp_servers", "container", "top_k",
                   "thinking", "system")
# Keys only an OpenAI Chat Completions request has.
_CHAT_KEYS = ("max_completion_tokens", "frequency_penalty", "presence_penalty", "logit_bias", "logprobs",
              "top_logprobs", "n", "response_format", "seed", "parallel_tool_calls", "stream_options",
              "reasoning_effort", "modalities", "functions", "function_call")
_OPENAI_MODELS = ("gpt-", "o1", "o3", "o4", "chatgpt-", "text-davinci")


def implied(envelope: dict[str, Any], key: str) -> tuple[tuple[str, ...], str]:
    """The formats the envelope allows, most likely first, and the keys that say so (("", ""): no request).

    Formats that refine an implied one (SWE-agent's Chat messages) are the caller's to add.
    """
    if key == "contents":
        return ("gemini",), "contents"
    if key == "input":
        return ("openai-responses",), "input"
    if key != "messages":
        return (), ""
    if "modelId" in envelope:
        return ("bedrock",), "modelId, messages"
    model = envelope.get("model")
    anthropic_keys = [k for k in _ANTHROPIC_KEYS if k in envelope]
    chat_keys = [k for k in _CHAT_KEYS if k in envelope]
    if "anthropic_version" in envelope or (anthropic_keys and "max_tokens" in envelope and not chat_keys):
        said = [k for k in ("model", "max_tokens", *anthropic_keys) if k in envelope]
        return ("anthropic", "openai-chat"), ", ".join([*said, "messages"])
    if not isinstance(model, str):
        return (), ""
    openai_model = model.lower().startswith(_OPENAI_MODELS)
    if "max_tokens" in envelope and not chat_keys and not openai_model:
        return ("anthropic", "openai-chat"), "model, max_tokens, messages"
    return ("openai-chat", "anthropic"), "model, messages"
