import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport } from "ai";
import { useState } from "react";

// A to-do chat on Taskchat with the AI SDK's useChat: its default transport, pointed at the chat
// route with the user's token. Tool parts show what really ran; a question's answers are buttons.
export function TaskChat({ baseUrl, userId, token }) {
  const { messages, sendMessage, status, error } = useChat({
    transport: new DefaultChatTransport({
      api: `${baseUrl}/api/${userId}/chat`,
      headers: { Authorization: `Bearer ${token}` },
    }),
  });
  const [input, setInput] = useState("");
  const busy = status === "submitted" || status === "streaming";

  return (
    <div className="taskchat">
      {messages.map((message) => (
        <div key={message.id} className={message.role}>
          {message.parts.map((part, i) => {
            if (part.type === "text") return <p key={i}>{part.text}</p>;
            if (part.type.startsWith("tool-")) {
              // errorText is the tool's own error, written for the model; the reply says it in the user's language.
              const outcome = part.state === "output-error" ? "failed" : "done";
              return <small key={i} className="tool">{part.type.slice(5)} {outcome}</small>;
            }
            if (part.type === "data-confirmation") {
              return part.data.answers.map((answer) => (
                <button
                  key={answer.label}
                  disabled={busy}
                  onClick={() => sendMessage({ text: answer.message }, { body: { confirm: answer.confirm } })}
                >
                  {answer.label}
                </button>
              ));
            }
            return null;
          })}
        </div>
      ))}
      {error && <p role="alert">{detail(error)}</p>}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          sendMessage({ text: input });
          setInput("");
        }}
      >
        <input value={input} onChange={(event) => setInput(event.target.value)} placeholder="add buy milk" />
        <button type="submit" disabled={busy || !input}>Send</button>
      </form>
    </div>
  );
}

// Taskchat's errors are JSON ({"error": CODE, "detail": text}), in the stream or as the response.
function detail(error) {
  try {
    return JSON.parse(error.message).detail;
  } catch {
    return error.message;
  }
}
