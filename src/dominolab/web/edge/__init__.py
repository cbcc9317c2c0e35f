"""The HTTP and WebSocket edge: routes, the socket protocol, limits on what one address may
ask, and running the server as a process."""
