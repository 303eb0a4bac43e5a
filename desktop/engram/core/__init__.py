"""The Qt-free core: storage, retrieval, models, memory providers, files, the turn engine."""
