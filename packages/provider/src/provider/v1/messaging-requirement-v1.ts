/**
 * Something a messaging capability needs in every call, declared so a flow can be refused at start
 * rather than at the first send. `sender`: every call must name `from` (the provider has no default
 * sender configured).
 */
export type MessagingRequirementV1 = 'sender';
