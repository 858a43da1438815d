"""The process: argv, environment, logs, signals. Imports every layer below it."""
