// The README's example (examples/react-usechat/TaskChat.jsx), mounted as an app would mount it, with
// the server and token the browser test (tests/clients/test_react_example.py) put on the page.
import { createRoot } from "react-dom/client";
import { TaskChat } from "../../../examples/react-usechat/TaskChat.jsx";

const { baseUrl, userId, token } = window.TASKCHAT;
createRoot(document.getElementById("root")).render(<TaskChat baseUrl={baseUrl} userId={userId} token={token} />);
