"""The web app (``dominolab serve``): play in the browser against the computer or a friend.

Only this package imports the web libraries; the rules core never imports it.
"""
