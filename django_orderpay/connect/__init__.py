"""PagBank Connect: a platform acting for many sellers' PagBank accounts (OAuth 2).

- :mod:`.cipher`: the tokens encrypted at rest (Fernet keys from the settings);
- :mod:`.tokens`: an account's token for each request, refreshed before it
  expires and once on a 401, one refresh at a time per account;
- :mod:`.clients`: the HTTP client acting for an account;
- :mod:`.flow` and :mod:`.views`: the authorisation (state and PKCE kept on
  the server, bound to the user who started it) and its callback;
- :mod:`.routing`: which account a notification is for, and its tokens.

See ``docs/connect.md``.
"""
