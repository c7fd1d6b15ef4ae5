"""The game server: tables for friends and bots, over HTTP and WebSockets (docs/protocol.md).

``app`` holds the routes, ``tables`` the games and their logs, ``store`` the database,
``protocol`` the messages, and ``bots`` the process pool that thinks for the bots.
"""
