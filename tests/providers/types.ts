// The providers' own SDK types that scripts/ci/providers.sh checks the library's JSON against.
// Each generated literal is typed with one of these, so tsc --strict rejects a missing or
// unknown field (excess-property checks on object literals).
import type OpenAI from 'openai';
import type Anthropic from '@anthropic-ai/sdk';
import type * as Genai from '@google/genai';

// OpenAI chat completions.
export type OpenAIChatTool = OpenAI.Chat.Completions.ChatCompletionFunctionTool;
export type OpenAIChatCallIn = OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
export type OpenAIChatCallOut = OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
export type OpenAIChatResult = OpenAI.Chat.Completions.ChatCompletionToolMessageParam;

// OpenAI Responses.
export type OpenAIResponsesTool = OpenAI.Responses.FunctionTool;
export type OpenAIResponsesCallIn = OpenAI.Responses.ResponseFunctionToolCall;
export type OpenAIResponsesCallOut = OpenAI.Responses.ResponseFunctionToolCall;
export type OpenAIResponsesResult = OpenAI.Responses.ResponseInputItem.FunctionCallOutput;

// Anthropic Messages: the model's block in, the request's blocks out.
export type AnthropicTool = Anthropic.Tool;
export type AnthropicCallIn = Anthropic.ToolUseBlock;
export type AnthropicCallOut = Anthropic.ToolUseBlockParam;
export type AnthropicResult = Anthropic.ToolResultBlockParam;

// Google Gemini: a Tool of function declarations; parts with functionCall / functionResponse.
export type GeminiTool = Genai.Tool;
export type GeminiCallIn = Genai.Part;
export type GeminiCallOut = Genai.Part;
export type GeminiResult = Genai.Part;

// Type-level guards: the parts must carry the function members, not merely be valid Parts.
export type GeminiFunctionCallPart = Genai.Part & { functionCall: Genai.FunctionCall };
export type GeminiFunctionResponsePart = Genai.Part & { functionResponse: Genai.FunctionResponse };
