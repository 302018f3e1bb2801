// The one table of commands: `name: Arguments => Result`. Plain comments only: src-tauri's build script includes this
// file as it is, to make one `allow-<name>` permission of each window command.
//
// `window` commands are what the app's webview may invoke: each becomes a Tauri command of the same name taking its
// arguments as `args`, and an entry of the UI's `Commands` type. `wharf session` accepts them too, by name, with the
// arguments' fields on the line. `session` commands are the ones the session has always had, in the shapes its
// contract (docs/cli.md) gives them; a session name that is also a window command's means the session's.
//
// `command_table!(then, TOKENS)` puts TOKENS before the lists, for a caller that adds lists of its own.
//
// Adding a command is one line here and its `Run` impl in `facade/commands/`.

#[macro_export]
macro_rules! command_table {
    ($then:ident $(, $($before:tt)*)?) => {
        $then! {
            $($($before)*)?
            window: [
                list_servers: ListServers => Vec<ServerSummary>,
                restart_server: RestartServer => (),
                stop_server: StopServer => (),
                startup_report: GetStartupReport => StartupReport,
                list_tools: ListTools => Vec<ListedTool>,
                call_tool: CallTool => ToolResultView,
                cancel_call: CancelCall => (),
                list_server_entries: ListServerEntries => Vec<ServerEntry>,
                save_server: SaveServer => Vec<ServerEntry>,
                remove_server: RemoveServer => Vec<ServerEntry>,
                import_sources: ImportSources => Vec<ImportSource>,
                import_servers: ImportServers => Vec<ServerEntry>,
                pending_inputs: PendingInputs => Vec<PendingInput>,
                answer_input: AnswerInput => (),
                resume_elicitation: ResumeElicitation => bool,
                sign_in_status: SignInStatuses => Vec<ServerSignIn>,
                sign_out: SignOut => bool,
                workspace_folders: GetWorkspaceFolders => WorkspaceFolders,
                open_folder_dialog: OpenFolderDialog => Option<WorkspaceFolders>,
                open_folder: OpenFolder => WorkspaceFolders,
                close_folder: CloseFolder => WorkspaceFolders,
                server_roots: GetServerRoots => ServerRoots,
                set_roots_preference: SetRootsPreference => ServerRoots,
                set_path_preference: SetPathPreference => ServerRoots,
                tool_path_params: ToolPathParams => Vec<PathParam>,
                sampling_settings: GetSamplingSettings => SamplingSettings,
                save_sampling_provider: SaveSamplingProvider => SamplingSettings,
                set_secret: SetSecret => (),
                delete_secret: DeleteSecret => bool,
                set_sampling_preference: SetSamplingPreference => Vec<PreferenceRow>,
                forget_sampling_preference: ForgetSamplingPreference => Vec<PreferenceRow>,
                list_resources: ListResources => ResourceCatalog,
                read_resource: ReadResource => ResourceView,
                save_resource_blob: SaveResourceBlob => Option<SavedBlob>,
                template_variables: TemplateVariables => Vec<TemplateVariable>,
                expand_template: ExpandTemplate => String,
                list_prompts: ListPrompts => PromptCatalog,
                get_prompt: GetPrompt => PromptView,
                complete: Complete => Completion,
                subscribe_resource: SubscribeResource => Vec<String>,
                set_log_level: SetLogLevel => (),
                log_level: GetLogLevel => Option<String>,
                clear_log_level: ClearLogLevel => (),
                missing_inputs: MissingInputs => Vec<MissingInput>,
                provide_input: ProvideInput => Vec<MissingInput>,
                chat_status: GetChatStatus => ChatStatus,
                send_message: SendMessage => TurnOutcome,
                cancel_turn: CancelTurn => (),
                summarize_conversation: SummarizeConversation => Summarized,
                list_conversations: ListConversations => Vec<ConversationSummary>,
                search_conversations: SearchConversations => Vec<SearchHit>,
                rename_conversation: RenameConversation => (),
                delete_conversation: DeleteConversation => (),
                conversation_messages: ConversationMessages => Vec<ThreadMessage>,
                list_grants: ListGrants => Vec<StoredGrant>,
                revoke_grant: RevokeGrant => Vec<StoredGrant>,
                open_link: OpenLink => (),
                local_models: LocalModels => Vec<LocalRuntime>,
                chat_models: GetChatModels => ChatModels,
                choose_chat_model: ChooseChatModel => ChatStatus,
                view_message: ViewMessage => ViewReply,
                set_view_theme: SetViewTheme => Vec<ViewPost>,
                close_view: CloseView => ViewPost,
                forget_view: ForgetView => bool,
                view_stalled: ViewStalled => String,
                open_call_view: OpenCallView => Option<ViewSlot>,
                tools_with_views: ToolsWithViews => Vec<ToolOfServer>,
            ],
            session: [
                servers: SessionServers => Value,
                tools: SessionTools => Vec<ToolInfo>,
                call: SessionCall => Value,
                cancel: SessionCancel => Value,
                start: SessionStart => Value,
                restart: SessionRestart => Value,
                stop: SessionStop => Value,
                open: SessionOpen => Value,
                close: SessionClose => Value,
                subscribe: SessionSubscribe => Value,
                unsubscribe: SessionUnsubscribe => Value,
                log_level: SessionLogLevel => Value,
                chat: SessionChatTurn => Value,
            ],
        }
    };
}
