"""greetings: the sample project of `jlgcli dev`."""
