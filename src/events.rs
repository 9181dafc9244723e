//! (placeholder) Conversation-ended and other notifications: the receiver and its durable store.
