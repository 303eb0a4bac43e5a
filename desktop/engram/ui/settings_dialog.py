"""Settings: models, memory, preferences and the data folder. Saved in the config folder
(platformdirs) and applied without a restart: a new chat model is loaded in the background, memory
options take effect on the next turn, a new embedding model is loaded before anything is saved
(one that does not load changes nothing), and the data folder is reopened after a safe move."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QValidator
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFileDialog, QFormLayout,
                               QFrame, QHBoxLayout, QLabel, QLineEdit, QMessageBox, QPlainTextEdit, QPushButton,
                               QScrollArea, QSpinBox, QTabWidget, QVBoxLayout, QWidget)

from engram.core.errors import EngramError, ModelError
from engram.core.models.gpu import ALL, AUTO
from engram.core.settings import EMBEDDING_FIELDS
from engram.core.storage.pgpass import remember_password
from engram.core.conversation.memory_options import RECALL_MODES, scope_dimensions
from engram.core.conversation.preferences import DETAIL_LEVELS
from engram.ui.language import LANGUAGES
from engram.ui.model_source import SourcePicker
from engram.ui.notice import Notice
from engram.ui.server_setting import ServerSetting
from engram.ui.settings_integrations import ApiHost, IntegrationsPage
from engram.ui.trigger_words import TriggerWordsEdit

CHAT_FIELDS = ("chat_model", "chat_context_size", "chat_threads", "chat_gpu_layers")
SEARCH_TIMES = {"before_call": QT_TRANSLATE_NOOP("SettingsDialog", "Before every reply (inject)"),
                "on_demand": QT_TRANSLATE_NOOP("SettingsDialog", "When the model asks (tool)"),
                "hybrid": QT_TRANSLATE_NOOP("SettingsDialog", "Both"),
                "triggered": QT_TRANSLATE_NOOP("SettingsDialog", "Only when you ask about the past")}
# The scopes offered, in words (the setting's value, e.g. "user,session", is what the settings file holds).
STORAGE_SCOPES = {"user,session": QT_TRANSLATE_NOOP("SettingsDialog", "Yours, with the chat they come from"),
                  "agent,user,session": QT_TRANSLATE_NOOP("SettingsDialog", "Yours, with the assistant and the chat")}
SEARCH_SCOPES = {"user": QT_TRANSLATE_NOOP("SettingsDialog", "All your chats"),
                 "user,session": QT_TRANSLATE_NOOP("SettingsDialog", "Only the open chat"),
                 "agent,user": QT_TRANSLATE_NOOP("SettingsDialog", "All your chats with this assistant")}
AUTO_CHOICES = {"auto": QT_TRANSLATE_NOOP("SettingsDialog", "Automatic (not with the demo model)"),   # distill, tools
                "on": QT_TRANSLATE_NOOP("SettingsDialog", "On"), "off": QT_TRANSLATE_NOOP("SettingsDialog", "Off")}
THINKING_CHOICES = {"off": QT_TRANSLATE_NOOP("SettingsDialog", "Off: reasoning models answer at once"),
                    "on": QT_TRANSLATE_NOOP("SettingsDialog", "On: they reason first, shown folded above the reply")}
SENSITIVE_CHOICES = {"keep": QT_TRANSLATE_NOOP("SettingsDialog", "Keep them as written"),
                     "mask": QT_TRANSLATE_NOOP("SettingsDialog", "Mask them before they are stored")}
LEARNING_CHOICES = {"auto": QT_TRANSLATE_NOOP("SettingsDialog", "Automatically (each shown, with Undo)"),
                    "ask": QT_TRANSLATE_NOOP("SettingsDialog", "Ask me first"),
                    "off": QT_TRANSLATE_NOOP("SettingsDialog", "Off")}
DETAIL_NAMES = {"brief": QT_TRANSLATE_NOOP("SettingsDialog", "brief"),
                "normal": QT_TRANSLATE_NOOP("SettingsDialog", "normal"),
                "detailed": QT_TRANSLATE_NOOP("SettingsDialog", "detailed")}


class ModelPicker(QWidget):
    """A .gguf path with Choose… and Use default; shows the model's name, size and context length,
    or, in place, why the file cannot be used."""

    def __init__(self, backend, role: str, default_label: str, parent=None):
        super().__init__(parent)
        self.backend, self.role, self.default_label = backend, role, default_label
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.path = QLineEdit()
        self.path.setReadOnly(True)
        self.path.setPlaceholderText(default_label)
        choose = QPushButton(self.tr("Choose…"))
        choose.clicked.connect(self.choose)
        reset = QPushButton(self.tr("Use default"))
        reset.clicked.connect(lambda: self.set_path(""))
        row.addWidget(self.path, 1)
        row.addWidget(choose)
        row.addWidget(reset)
        layout.addLayout(row)
        self.info = QLabel()
        self.info.setWordWrap(True)
        self.info.setObjectName("Muted")
        layout.addWidget(self.info)
        self.valid = True

    def choose(self) -> None:
        start = str(Path(self.path.text()).parent) if self.path.text() else str(Path.home())
        title = self.tr("Choose the chat model") if self.role == "chat" else self.tr("Choose the embedding model")
        chosen, _ = QFileDialog.getOpenFileName(self, title, start,
                                                self.tr("GGUF models (*.gguf);;All files (*)"))
        if chosen:
            self.set_path(chosen)

    def set_path(self, path: str) -> None:
        self.path.setText(path)
        self.describe()

    def describe(self) -> None:
        path = self.path.text()
        if not path:
            self.valid = True
            self.info.setText(self.default_label)
            return
        self.info.setText(self.tr("Reading the model file…"))

        def read(_engram):
            from engram.core.models.gguf_info import read_model_info

            return read_model_info(path, self.role)

        def failed(error):
            self.valid = False
            self.show_error(error)

        def shown(info):
            self.valid = True
            self.info.setText(info.summary())

        if self.backend.disk(read, returned=shown, errored=failed) is None:
            self.info.setText("")

    def show_error(self, error) -> None:
        message = EngramError.message_of(error)
        hint = getattr(error, "hint", "")
        self.info.setText(f"<span style='color:#c0392b'>✕ {message}</span>" + (f"<br><i>{hint}</i>" if hint else ""))


class GpuLayersBox(QSpinBox):
    """GPU layers of the chat model, or of the embedding model and reranker (``role``): auto (what
    fits the GPU's memory), all, 0 (the CPU only) or a number."""

    AUTO_VALUE = ALL - 1
    TOOLTIPS = {"chat": QT_TRANSLATE_NOOP("GpuLayersBox", "Layers of the chat model run on the GPU this build of"
                                          " Engram can use (Metal, CUDA or Vulkan): auto puts there what fits its"
                                          " free memory, 0 keeps the model on the CPU. Without a GPU, every setting"
                                          " runs on the CPU."),
                "embedding": QT_TRANSLATE_NOOP("GpuLayersBox", "Layers of the embedding model and of the reranker"
                                               " run on the GPU this build of Engram can use (Metal, CUDA or"
                                               " Vulkan): auto puts there what fits its free memory, 0 keeps them"
                                               " on the CPU. A change reloads them when saved.")}

    def __init__(self, role: str, parent=None):
        super().__init__(parent, minimum=self.AUTO_VALUE, maximum=999)
        self.setSpecialValueText(self.tr("auto"))
        self.setToolTip(self.tr(self.TOOLTIPS[role]))

    def setting(self) -> int | str:
        return AUTO if self.value() == self.AUTO_VALUE else self.value()

    def set_setting(self, value: int | str) -> None:
        self.setValue(self.AUTO_VALUE if value == AUTO else int(value))

    def textFromValue(self, value: int) -> str:
        return self.tr("all") if value == ALL else super().textFromValue(value)

    def valueFromText(self, text: str) -> int:
        return ALL if text.strip() == self.tr("all") else super().valueFromText(text)

    def validate(self, text: str, pos: int):
        if text.strip() and self.tr("all").startswith(text.strip()):
            return (QValidator.Acceptable if text.strip() == self.tr("all") else QValidator.Intermediate), text, pos
        return super().validate(text, pos)


class SettingsDialog(QDialog):
    applied = Signal(set)       # what changed: {"chat", "memory", "embedding", "data"}

    def __init__(self, backend, parent=None):
        super().__init__(parent)
        self.backend = backend
        self.setWindowTitle(self.tr("Settings"))
        self.resize(680, 560)
        layout = QVBoxLayout(self)
        self.notice = Notice()
        layout.addWidget(self.notice)
        self.pages = QTabWidget()
        layout.addWidget(self.pages, 1)
        self.page_names: list[str] = []       # the pages in English, for show_page

        self._add_page(self._models_page(), "Models", self.tr("Models"))
        self._add_page(self._memory_page(), "Memory", self.tr("Memory"))
        self._add_page(self._preferences_page(), "Preferences", self.tr("Preferences"))
        self._add_page(self._data_page(), "Data", self.tr("Data"))

        self.integrations = IntegrationsPage(backend, getattr(parent, "api", None) or ApiHost(backend, self))
        self._add_page(self.integrations, "Integrations", self.tr("Integrations"))

        buttons = QDialogButtonBox(QDialogButtonBox.Save | QDialogButtonBox.Close)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def _models_page(self) -> QWidget:
        """The chat and embedding models, and where better ones come from."""
        models = QWidget()
        form = QFormLayout(models)
        self.chat_model = ModelPicker(self.backend, "chat",
                                      self.tr("The bundled demo model (SmolLM2 135M Instruct: tiny,"
                                              " for trying Engram out; English only, no tools)"))
        form.addRow(self.tr("Chat model"), self.chat_model)
        self.context_size = QSpinBox(minimum=512, maximum=262_144, singleStep=512)
        self.threads = QSpinBox(minimum=0, maximum=256, specialValueText=self.tr("one per CPU"))
        self.gpu_layers = GpuLayersBox("chat")
        self.reply_tokens = QSpinBox(minimum=16, maximum=8192, singleStep=64)
        form.addRow(self.tr("Context size (tokens)"), self.context_size)
        form.addRow(self.tr("CPU threads"), self.threads)
        form.addRow(self.tr("GPU layers"), self.gpu_layers)
        form.addRow(self.tr("Longest reply (tokens)"), self.reply_tokens)
        self.tools = self._choices(AUTO_CHOICES, self.tr("Session files and memory search as tools the model may"
                                                          " call; small models cannot call them."))
        form.addRow(self.tr("Tools"), self.tools)
        self.thinking = self._choices(THINKING_CHOICES, self.tr("Whether models that can think aloud (Qwen3, SmolLM3)"
                                                                " reason before they answer; on CPUs that takes"
                                                                " minutes. The reasoning is never stored."))
        form.addRow(self.tr("Thinking"), self.thinking)
        self.embedding_model = ModelPicker(self.backend, "embedding",
                                           self.tr("The bundled multilingual-e5-small (Chinese, English and more)"))
        form.addRow(self.tr("Embedding model"), self.embedding_model)
        self.embedding_gpu_layers = GpuLayersBox("embedding")
        form.addRow(self.tr("Embedding GPU layers"), self.embedding_gpu_layers)
        hint = QLabel(self.tr("A better chat model: pick one with “Download a model…” below, or choose"
                              " a GGUF file you already have above. A new embedding model is used as soon as it is"
                              " saved; your memories are then re-embedded in the background, and found by their"
                              " words meanwhile."))
        hint.setWordWrap(True)
        hint.setObjectName("Muted")
        form.addRow(hint)
        catalog = QPushButton(self.tr("Download a model…"))     # the Models dialog (ui/models_dialog.py)
        catalog.clicked.connect(self.open_models)
        form.addRow(catalog)
        self.source = SourcePicker(self.backend)               # saved at once, as in the Models dialog
        form.addRow(self.source)
        self.models_dialog = None
        return models

    def _memory_page(self) -> QWidget:
        """When and how memories are searched, kept and noted."""
        memory = QWidget()
        form = QFormLayout(memory)
        self.search_time = QComboBox()
        for mode in RECALL_MODES:
            self.search_time.addItem(self.tr(SEARCH_TIMES[mode]) if mode in SEARCH_TIMES else mode, mode)
        self.max_results = QSpinBox(minimum=1, maximum=50)
        self.threshold = QDoubleSpinBox(minimum=0.0, maximum=1.0, singleStep=0.05, decimals=2)
        self.half_life = QDoubleSpinBox(minimum=1.0, maximum=36_500.0, singleStep=30.0, decimals=0,
                                        suffix=self.tr(" days"))
        self.half_life.setToolTip(self.tr("Among memories that match alike, newer ones come first: a memory's"
                                          " newness counts half after this many days."))
        self.window_size = QSpinBox(minimum=1, maximum=500)
        self.summary_threshold = QSpinBox(minimum=2, maximum=10_000)
        self.storage_scope = self._choices(STORAGE_SCOPES, self.tr("What each memory is stored with: recall can"
                                                                   " then reach across chats, or stay in one."))
        self.search_scope = self._choices(SEARCH_SCOPES, self.tr("Which memories recall looks in before a reply."))
        self.distill = self._choices(AUTO_CHOICES, self.tr("After every few messages, the chat model notes facts,"
                                                           " preferences and tasks from what you said, as memories"
                                                           " you can see and edit."))
        self.triggers = TriggerWordsEdit()
        self.search_time.currentIndexChanged.connect(
            lambda _: self.triggers.setEnabled(self.search_time.currentData() != "on_demand"))
        self.sensitive = self._choices(SENSITIVE_CHOICES, self.tr("E-mail addresses, phone, ID, card, IBAN and"
                                                                  " passport-like numbers in what you write."))
        self.system_prompt = QPlainTextEdit()
        self.system_prompt.setMaximumHeight(90)
        self.profile_learning = self._choices(LEARNING_CHOICES, self.tr(
            "What you say about yourself (“I'm allergic to peanuts”, “Please keep answers short”) goes into your"
            " profile, which Engram keeps in mind in every chat. Asked first, it waits in the Profile tab for"
            " your OK."))
        self.profile_tokens = QSpinBox(minimum=50, maximum=8000, singleStep=50, suffix=self.tr(" tokens"))
        self.profile_tokens.setToolTip(self.tr("The profile's share of every prompt; when it is longer, its most"
                                               " important lines go first and the Context tab names the others."))
        form.addRow(self.tr("Search memories"), self.search_time)
        form.addRow(self.tr("Trigger words"), self.triggers)
        form.addRow(self.tr("Max recalled memories"), self.max_results)
        form.addRow(self.tr("Relevance threshold"), self.threshold)
        form.addRow(self.tr("Newer first (half-life)"), self.half_life)
        form.addRow(self.tr("Window (recent messages)"), self.window_size)
        form.addRow(self.tr("Summarise after (messages)"), self.summary_threshold)
        form.addRow(self.tr("Store memories as"), self.storage_scope)
        form.addRow(self.tr("Recall from"), self.search_scope)
        form.addRow(self.tr("Note facts and preferences"), self.distill)
        form.addRow(self.tr("Learn about me from what I say"), self.profile_learning)
        form.addRow(self.tr("Profile budget"), self.profile_tokens)
        form.addRow(self.tr("Sensitive details"), self.sensitive)
        form.addRow(self.tr("System prompt"), self.system_prompt)
        return memory

    def _preferences_page(self) -> QWidget:
        """The window's language and how replies should read."""
        prefs = QWidget()
        form = QFormLayout(prefs)
        self.ui_language = QComboBox()
        self.ui_language.addItem(self.tr("As the system"), "")
        for code, name in LANGUAGES.items():
            self.ui_language.addItem(name, code)
        self.language = QLineEdit(placeholderText=self.tr("e.g. English, 中文 (empty: any)"))
        self.tone = QLineEdit(placeholderText=self.tr("e.g. friendly, formal (empty: any)"))
        self.detail = QComboBox()
        self.detail.addItem(self.tr("(any)"), "")
        for level in DETAIL_LEVELS:
            self.detail.addItem(self.tr(DETAIL_NAMES[level]) if level in DETAIL_NAMES else level, level)
        self.emoji = QComboBox()
        for label, value in ((self.tr("(any)"), None), (self.tr("yes"), True), (self.tr("no"), False)):
            self.emoji.addItem(label, value)
        form.addRow(self.tr("Window language"), self.ui_language)
        language_note = QLabel(self.tr("The window speaks its new language when Engram starts again."))
        language_note.setObjectName("Muted")
        language_note.setWordWrap(True)
        form.addRow(language_note)
        form.addRow(self.tr("Reply in"), self.language)
        form.addRow(self.tr("Tone"), self.tone)
        form.addRow(self.tr("Detail"), self.detail)
        form.addRow(self.tr("Emoji"), self.emoji)
        return prefs

    def _data_page(self) -> QWidget:
        """Where the data folder is, and moving it; or a server instead, and copying the data there."""
        data = QWidget()
        form = QFormLayout(data)
        self.data_dir = QLineEdit()
        self.data_dir.setReadOnly(True)
        open_button = QPushButton(self.tr("Open"))
        open_button.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(self.data_dir.text())))
        move_button = QPushButton(self.tr("Move…"))
        move_button.clicked.connect(self.move_data)
        row = QHBoxLayout()
        row.addWidget(self.data_dir, 1)
        row.addWidget(open_button)
        row.addWidget(move_button)
        form.addRow(self.tr("Data folder"), row)
        self.config_path = QLabel()
        self.config_path.setObjectName("Muted")
        form.addRow(self.tr("Settings file"), self.config_path)
        note = QLabel(self.tr("Moving copies everything (database and session files), checks the copy, and only"
                              " then removes the old folder. Models stay where they are."))
        note.setWordWrap(True)
        note.setObjectName("Muted")
        form.addRow(note)
        self.server = ServerSetting(self.parent(), data)
        form.addRow(self.tr("Use a server"), self.server)
        server_note = QLabel(self.tr("PostgreSQL with pgvector keeps one memory for several devices or people. Copy"
                                     " your data into an empty database there; Engram then uses the server from"
                                     " its next start. Session files stay in the data folder."))
        server_note.setWordWrap(True)
        server_note.setObjectName("Muted")
        form.addRow(server_note)
        return data

    def _choices(self, choices: dict[str, str], tip: str) -> QComboBox:
        combo = QComboBox()
        for value, label in choices.items():
            combo.addItem(self.tr(label), value)
        combo.setToolTip(tip)
        return combo

    def _add_page(self, page: QWidget, name: str, label: str) -> None:
        """A page scrolls rather than squeezing its rows (a long note is cut off when squeezed)."""
        scroller = QScrollArea(widgetResizable=True, frameShape=QFrame.NoFrame)
        scroller.setWidget(page)
        self.pages.addTab(scroller, label)
        self.page_names.append(name)

    def open_models(self) -> None:
        from engram.ui.models_dialog import ModelsDialog

        if self.models_dialog is None:
            self.models_dialog = ModelsDialog(self.backend, self)
            self.models_dialog.applied.connect(self._model_chosen)
            # one setting, two pickers: each shows what the other saved
            self.models_dialog.source.changed.connect(lambda _: self.source.show_setting(self.backend.engram.settings))
            self.source.changed.connect(lambda _: self.models_dialog.load())
        self.models_dialog.load()
        self.models_dialog.show()
        self.models_dialog.raise_()

    def _model_chosen(self, groups: set) -> None:
        settings = self.backend.engram.settings
        self.chat_model.set_path(settings.chat_model)
        self.embedding_model.set_path(settings.embedding_model)
        self.applied.emit(groups)

    def show_page(self, name: str) -> None:
        """Show a page by its English name (e.g. "Models")."""
        if name in self.page_names:
            self.pages.setCurrentIndex(self.page_names.index(name))

    # -- loading and saving -----------------------------------------------------------------------

    def load(self) -> None:
        """Show the settings as they are now."""
        engram = self.backend.engram
        self.notice.hide()
        if engram is None:
            self.notice.show_message(self.tr("Engram's data is not open, so only the data folder can be changed."),
                                     "warning")
            return
        s = engram.settings
        self.chat_model.set_path(s.chat_model)
        self.embedding_model.set_path(s.embedding_model)
        self.source.show_setting(s)
        self.context_size.setValue(s.chat_context_size)
        self.threads.setValue(s.chat_threads)
        self.gpu_layers.set_setting(s.chat_gpu_layers)
        self.embedding_gpu_layers.set_setting(s.embedding_gpu_layers)
        self.reply_tokens.setValue(s.chat_max_tokens)
        self.search_time.setCurrentIndex(max(0, self.search_time.findData(s.recall_mode)))
        self.triggers.set_words(s.recall_triggers_en, s.recall_triggers_zh)
        self.tools.setCurrentIndex(max(0, self.tools.findData(s.chat_tools)))
        self.thinking.setCurrentIndex(max(0, self.thinking.findData(s.chat_thinking)))
        self.sensitive.setCurrentIndex(max(0, self.sensitive.findData(s.sensitive_details)))
        self.max_results.setValue(s.recall_max_results)
        self.threshold.setValue(s.recall_threshold)
        self.half_life.setValue(s.recency_half_life_days)
        self.window_size.setValue(s.window_messages)
        self.summary_threshold.setValue(s.summary_threshold)
        for combo, value in ((self.storage_scope, s.storage_scope), (self.search_scope, s.search_scope)):
            if combo.findData(value) < 0:           # written by hand: shown as it is
                combo.addItem(value, value)
            combo.setCurrentIndex(combo.findData(value))
        self.distill.setCurrentIndex(max(0, self.distill.findData(s.distill_memories)))
        self.profile_learning.setCurrentIndex(max(0, self.profile_learning.findData(s.profile_learning)))
        self.profile_tokens.setValue(s.profile_tokens)
        self.system_prompt.setPlainText(s.system_prompt)
        if self.ui_language.findData(s.ui_language) < 0:      # written by hand: shown as it is
            self.ui_language.addItem(s.ui_language, s.ui_language)
        self.ui_language.setCurrentIndex(self.ui_language.findData(s.ui_language))
        if (problem := engram.embedding_problem) is not None:
            self.notice.show_message(self.tr("The embedding model did not load: {why}. Until an embedding model"
                                             " loads, memories are found by their words only; nothing you write is"
                                             " lost, and it is embedded once one loads. Choose another one (or “Use"
                                             " default”) and Save.").format(why=problem.message), "warning")
        self.data_dir.setText(str(engram.data_dir))
        self.config_path.setText(s.path)
        self.server.load(s.database_url)
        self.integrations.load()
        self.backend.disk(lambda e: e.preferences.get(e.user), returned=self._show_preferences)

    def _show_preferences(self, prefs: dict) -> None:
        self.language.setText(prefs.get("language", ""))
        self.tone.setText(prefs.get("tone", ""))
        self.detail.setCurrentIndex(max(0, self.detail.findData(prefs.get("detail", ""))))
        self.emoji.setCurrentIndex(max(0, self.emoji.findData(prefs.get("emoji"))))

    def values(self) -> dict:
        return {"chat_model": self.chat_model.path.text(), "embedding_model": self.embedding_model.path.text(),
                "chat_context_size": self.context_size.value(), "chat_threads": self.threads.value(),
                "chat_gpu_layers": self.gpu_layers.setting(),
                "embedding_gpu_layers": self.embedding_gpu_layers.setting(), "chat_max_tokens": self.reply_tokens.value(),
                "recall_mode": self.search_time.currentData(), "recall_max_results": self.max_results.value(),
                "recall_threshold": round(self.threshold.value(), 2),
                "recency_half_life_days": self.half_life.value(), "window_messages": self.window_size.value(),
                "summary_threshold": self.summary_threshold.value(), "storage_scope": self.storage_scope.currentData(),
                "search_scope": self.search_scope.currentData(), "distill_memories": self.distill.currentData(),
                "system_prompt": self.system_prompt.toPlainText().strip(),
                "ui_language": self.ui_language.currentData(), "chat_tools": self.tools.currentData(),
                "chat_thinking": self.thinking.currentData(),
                "recall_triggers_en": self.triggers.words()[0], "recall_triggers_zh": self.triggers.words()[1],
                "sensitive_details": self.sensitive.currentData(), "database_url": self.server.value(),
                "profile_learning": self.profile_learning.currentData(), "profile_tokens": self.profile_tokens.value()}

    def preferences(self) -> dict:
        return {"language": self.language.text().strip(), "tone": self.tone.text().strip(),
                "detail": self.detail.currentData(), "emoji": self.emoji.currentData()}

    def save(self) -> None:
        engram = self.backend.engram
        if engram is None:
            return
        for picker in (self.chat_model, self.embedding_model):
            if not picker.valid:
                self.pages.setCurrentIndex(0)
                self.notice.show_message(
                    self.tr("The chat model file cannot be used (see below); nothing was saved. Choose another"
                            " file or “Use default”.") if picker.role == "chat" else
                    self.tr("The embedding model file cannot be used (see below); nothing was saved. Choose another"
                            " file or “Use default”."), "error")
                return
        values, prefs = self.values(), self.preferences()
        try:
            scope_dimensions(values["storage_scope"])
            scope_dimensions(values["search_scope"])
        except Exception as e:
            self.notice.show_message(str(e), "error")
            return
        if values["summary_threshold"] <= engram.settings.summary_keep:
            self.notice.show_message(self.tr("Summarise after must be more than {count} messages.").format(
                count=engram.settings.summary_keep), "error")
            return

        # A new embedding model, the one in use on other GPU layers, or the one that did not load (its
        # file may have been put right).
        embedding = (values["embedding_model"] != engram.settings.embedding_model or engram.embedding_problem is not None
                     or values["embedding_gpu_layers"] != engram.settings.embedding_gpu_layers)
        server = self.server.connection()

        def write(e):
            if server:
                remember_password(server)      # in libpq's password file, not the settings
            changed = {k for k, v in values.items() if getattr(e.settings, k) != v}
            if embedding:
                # ModelError: nothing saved, the one in use stays
                e.use_embedding_model(values["embedding_model"], values["embedding_gpu_layers"])
                changed.add("embedding_model")
            for key in changed:
                setattr(e.settings, key, values[key])
            e.settings.save()
            for key, value in prefs.items():
                if value in ("", None):
                    e.preferences.unset(e.user, key)
                else:
                    e.preferences.set(e.user, key, value)
            e.apply_settings(changed)
            return changed

        if embedding:
            self.notice.show_message(self.tr("Loading the embedding model…"), "info")
        self.backend.disk(write, returned=self._saved, errored=self._not_saved)

    def _not_saved(self, error) -> None:
        if isinstance(error, ModelError):         # only the embedding model loads while saving
            self.pages.setCurrentIndex(0)
            self.embedding_model.show_error(error)
            self.notice.show_message(self.tr("The embedding model did not load (see below): nothing was saved or"
                                             " changed."), "error")
        else:
            self.notice.show_message(self.tr("Not saved: {error}").format(error=error), "error")

    def _saved(self, changed: set) -> None:
        groups = set()
        if changed & set(CHAT_FIELDS):
            groups.add("chat")
        if "embedding_model" in changed:
            groups.add("embedding")
        if changed - set(CHAT_FIELDS) - EMBEDDING_FIELDS:
            groups.add("memory")
        note = self.tr("Saved.")
        if "embedding" in groups:
            note += " " + self.tr("The embedding model is in use now; memories it has not embedded yet are embedded"
                                  " in the background (the status bar counts them) and found by their words"
                                  " meanwhile.")
        if "ui_language" in changed:
            note += " " + self.tr("The window speaks its new language when Engram starts again.")
        if "database_url" in changed:
            note += " " + self.tr("Engram uses the database you named when it starts again.")
        again = {"ui_language", "database_url"} & changed and self.parentWidget() is not None
        self.notice.show_message(note, "info", [(self.tr("Restart now"), self.restart)] if again else [])
        self.applied.emit(groups)

    def restart(self) -> None:
        """Close Engram and start it again (a new window language, another database)."""
        from engram.ui.restart import relaunch

        self.close()
        relaunch(self.parentWidget())

    # -- the data folder --------------------------------------------------------------------------

    def move_data(self) -> None:
        current = self.data_dir.text()
        target = QFileDialog.getExistingDirectory(self, self.tr("Move the data folder to (an empty folder)"),
                                                  str(Path(current).parent))
        if not target:
            return
        question = self.tr("Move all of Engram's data from\n{old}\nto\n{new}?\n\nThe chat is paused while the"
                           " files are copied and checked.").format(old=current, new=target)
        if QMessageBox.question(self, self.tr("Move data folder"), question,
                                QMessageBox.Yes | QMessageBox.Cancel) != QMessageBox.Yes:
            return
        self.notice.show_message(self.tr("Moving… (copying and checking every file)"), "info")
        self.parent().move_data_dir(target, done=self._moved)

    def _moved(self, result) -> None:
        if isinstance(result, BaseException):
            hint = getattr(result, "hint", "")
            self.notice.show_message(self.tr("Not moved: {why}").format(why=EngramError.message_of(result))
                                     + (f"<br><i>{hint}</i>" if hint else ""), "error")
        else:
            self.data_dir.setText(str(result))
            self.notice.show_message(self.tr("Moved. Engram now keeps its data in {folder}.").format(folder=result),
                                     "info")
