// The MCP specification revision the endpoint speaks (the SDK negotiates it; the documents publish it).
export const MCP_PROTOCOL_REVISION = '2025-11-25';
