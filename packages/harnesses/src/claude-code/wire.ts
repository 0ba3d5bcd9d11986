// Claude Code's native types come from the Agent SDK (0.3.332), which publishes them. The shared
// stream-json translation reads its own narrow mirror (protocols/stream-json/wire.ts); the checks
// below fail to compile when an SDK upgrade changes a frame in a way the mirror no longer fits.
import type {
  SDKAPIRetryMessage,
  SDKAssistantMessage,
  SDKBackgroundTasksChangedMessage,
  SDKCompactBoundaryMessage,
  SDKPartialAssistantMessage,
  SDKResultMessage,
  SDKSystemMessage,
  SDKTaskNotificationMessage,
  SDKTaskStartedMessage,
  SDKTaskUpdatedMessage,
  SDKUserMessage,
} from '@anthropic-ai/claude-agent-sdk';
import type { Assert } from '@reins/core';
import type {
  WireApiRetry,
  WireAssistantMessage,
  WireBackgroundTasksChanged,
  WireCompactBoundary,
  WireInit,
  WirePartialMessage,
  WireResult,
  WireTaskNotification,
  WireTaskStarted,
  WireTaskUpdated,
  WireUserMessage,
} from '../protocols/stream-json/index.js';

export type {
  CanUseTool,
  McpServerStatus as SdkMcpServerStatus,
  ModelInfo as SdkModelInfo,
  Options as SdkOptions,
  PermissionResult,
  Query,
  SDKMessage,
  SDKUserMessage,
} from '@anthropic-ai/claude-agent-sdk';

type Fits<Sdk, Mirror> = [Sdk] extends [Mirror] ? true : false;
type _Assistant = Assert<Fits<SDKAssistantMessage, WireAssistantMessage>>;
type _User = Assert<Fits<SDKUserMessage, WireUserMessage>>;
type _Partial = Assert<Fits<SDKPartialAssistantMessage, WirePartialMessage>>;
type _Init = Assert<Fits<SDKSystemMessage, WireInit>>;
type _Compact = Assert<Fits<SDKCompactBoundaryMessage, WireCompactBoundary>>;
type _Retry = Assert<Fits<SDKAPIRetryMessage, WireApiRetry>>;
type _Result = Assert<Fits<SDKResultMessage, WireResult>>;
type _TaskStarted = Assert<Fits<SDKTaskStartedMessage, WireTaskStarted>>;
type _TaskUpdated = Assert<Fits<SDKTaskUpdatedMessage, WireTaskUpdated>>;
type _TaskNotification = Assert<Fits<SDKTaskNotificationMessage, WireTaskNotification>>;
type _BackgroundTasks = Assert<Fits<SDKBackgroundTasksChangedMessage, WireBackgroundTasksChanged>>;
